module github.com/wrapgen/wrapgen

go 1.26.8

require github.com/stretchr/testify v1.12.1

require (
	github.com/dave/jennifer v1.7.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/tools v0.52.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

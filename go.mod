module github.com/wrapgen/wrapgen

go 1.24.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/stretchr/testify v1.12.1
	golang.org/x/tools v0.42.0
	google.golang.org/protobuf v1.36.12
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect

// Times ONNX Runtime's CPU provider on one model, one thread, with the
// inputs given as .npy files (in the model's input order):
//   node bench/ort.js MODEL.onnx REPEAT IN.npy...
// Prints "min X ms, median Y ms" per call (the first call, which plans
// memory and warms caches, is not counted).
const fs = require('fs');
const ort = require('onnxruntime-node');

function readNpy(path) {
  const b = fs.readFileSync(path);
  const hlen = b[8] === undefined ? 0 : (b[6] === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8));
  const start = b[6] === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']*)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  const body = b.subarray(start + hlen);
  const types = {'<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '<f8': ['float64', Float64Array]};
  const [type, Arr] = types[descr];
  const data = new Arr(body.buffer.slice(body.byteOffset, body.byteOffset + body.length));
  return new ort.Tensor(type, data, shape);
}

(async () => {
  const [model, repeat, ...inputs] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential'});
  const feeds = {};
  session.inputNames.forEach((name, i) => { feeds[name] = readNpy(inputs[i]); });
  await session.run(feeds);
  const times = [];
  for (let i = 0; i < Number(repeat); i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  console.log(`min ${times[0].toFixed(2)} ms, median ${times[Math.floor(times.length / 2)].toFixed(2)} ms`);
})();

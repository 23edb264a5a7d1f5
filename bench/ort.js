// Times ONNX Runtime's CPU provider on one model, one thread, with the
// inputs given as .npy files (in the model's input order):
//   node bench/ort.js MODEL.onnx REPEAT IN.npy...
// Prints, as `wrapgen run -repeat` does, the wall time and the process CPU
// time per call, "min X ms, median Y ms" (the first call, which plans
// memory and warms caches, is not counted). THREADS (default 1) sets the
// intra-op threads; graph optimizations are ORT's default, level all.
// ORT_OUT=FILE.npy saves the first output of the first call.
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

// writeNpy saves a float32 output as .npy, for comparing with wrapgen's.
function writeNpy(path, t) {
  if (t.type !== 'float32') throw new Error(`ORT_OUT: output is ${t.type}, only float32 is written`);
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${t.dims.join(', ')}${t.dims.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1; head[7] = 0; head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(path, Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength)]));
}

(async () => {
  const [model, repeat, ...inputs] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(model, {intraOpNumThreads: Number(process.env.THREADS || 1), interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all'});
  const feeds = {};
  session.inputNames.forEach((name, i) => { feeds[name] = readNpy(inputs[i]); });
  const first = await session.run(feeds);
  if (process.env.ORT_OUT) writeNpy(process.env.ORT_OUT, first[session.outputNames[0]]);
  const wall = [], cpu = [];
  for (let i = 0; i < Number(repeat); i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1e3);
  }
  const stats = xs => { xs.sort((a, b) => a - b); return `min ${xs[0].toFixed(2)} ms, median ${xs[Math.floor(xs.length / 2)].toFixed(2)} ms`; };
  console.log(`time per call: ${stats(wall)}`);
  console.log(`process CPU time per call: ${stats(cpu)}`);
})();

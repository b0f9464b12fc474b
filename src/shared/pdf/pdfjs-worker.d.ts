// pdfjs-dist ships no types for its worker module; `pdfjs.ts` only hands it to pdf.js.
declare module 'pdfjs-dist/legacy/build/pdf.worker.mjs' {
  export const WorkerMessageHandler: unknown;
}

// pdf.js's types name the DOM canvas, and this Node project has no DOM lib: declare the part
// `rasterize.ts` hands over (an @napi-rs/canvas Canvas). It merges with the real one should
// the DOM lib ever be added.
interface HTMLCanvasElement {
  width: number;
  height: number;
}

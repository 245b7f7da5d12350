// The ddt playground page: sends the editor's text to the WebAssembly
// program (ddtRender) as the user types and shows what comes back.
"use strict";

const examples = {
  "row + column (seed 000 §II)":
    "# first row and first column of a 1000 x 1000 int matrix (seed 000, Fig. 2)\nrow = contiguous(1000, int)\ncol = vector(999, 1, 1000, int)\nstruct([1, 1], [0, 4000], [row, col])\n",
  "3-D halo face":
    "# the east face a 3-D halo exchange sends: x = 4 of the 4x4x4 interior\n# of a 6x6x6 block of doubles with a halo of 1 (C order: z, y, x)\nsubarray([6, 6, 6], [4, 4, 1], [1, 1, 4], C, double)\n",
  "matrix column":
    "# one column of an 8 x 8 matrix of doubles\nvector(8, 1, 8, double)\n",
  "struct with padding":
    "# struct { int a; double b; char c[2]; }\nstruct([1, 1, 2], [0, 8, 16], [int, double, char])\n",
  "darray block-cyclic":
    "# rank 1 of a 2 x 2 grid: block-cyclic(2) rows, block columns of an 8 x 8 int matrix\ndarray(4, 1, [8, 8], [cyclic, block], [2, default], [2, 2], C, int)\n",
  "indexed, overlapping":
    "# blocks may overlap and go backwards\nindexed([2, 3, 1], [4, 0, 1], short)\n",
};

const $ = (id) => document.getElementById(id);
let ready = false;
let timer = 0;

function setStatus(s) { $("status").textContent = s; }

// ddtReady is called by the WebAssembly program once ddtRender exists.
window.ddtReady = function () {
  ready = true;
  setStatus("ready");
  update();
};

function gutter(src, badLine) {
  const n = src.split("\n").length;
  let h = "";
  for (let i = 1; i <= n; i++) {
    h += i === badLine ? '<span class="bad">' + i + "</span>\n" : i + "\n";
  }
  $("gutter").innerHTML = h;
}

function update() {
  const src = $("src").value;
  if (!ready) return;
  const req = { source: src, count: Number($("count").value) || 1, width: Number($("width").value) || 0 };
  const t0 = performance.now();
  const res = JSON.parse(window.ddtRender(JSON.stringify(req)));
  const ms = (performance.now() - t0).toFixed(1);
  try { history.replaceState(null, "", "#src=" + encodeURIComponent(src)); } catch (e) { /* file: pages may refuse */ }
  if (res.error) {
    const e = res.error;
    $("error").textContent = e.line ? "line " + e.line + ", column " + e.col + ": " + e.msg : e.msg;
    gutter(src, e.line || 0);
    for (const id of ["picture", "show", "text", "typemap", "normalized", "c", "canonical"]) $(id).classList.add("stale");
    setStatus("error");
    return;
  }
  $("error").textContent = "";
  gutter(src, 0);
  for (const id of ["picture", "show", "text", "typemap", "normalized", "c", "canonical"]) $(id).classList.remove("stale");
  const rows = res.show.map(([k, v]) => "<tr><td>" + k + "</td><td id=\"show-" + k + "\">" + v + "</td></tr>");
  $("show").innerHTML = rows.join("");
  $("picture").innerHTML = res.svg || "";
  $("text").textContent = res.text || "";
  $("typemap").textContent = res.typemap || "";
  $("normalized").textContent = res.normalized || "";
  $("c").textContent = res.c || "";
  $("canonical").textContent = res.canonical || "";
  setStatus("rendered in " + ms + " ms");
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(update, 120);
}

function init() {
  const sel = $("example");
  for (const name of Object.keys(examples)) {
    const o = document.createElement("option");
    o.textContent = name;
    sel.appendChild(o);
  }
  sel.addEventListener("change", () => { $("src").value = examples[sel.value]; update(); });
  let src = examples["row + column (seed 000 §II)"];
  const m = location.hash.match(/^#src=(.*)$/);
  if (m) { try { src = decodeURIComponent(m[1]); } catch (e) { /* keep the example */ } }
  $("src").value = src;
  gutter(src, 0);
  $("src").addEventListener("input", schedule);
  $("src").addEventListener("scroll", () => { $("gutter").scrollTop = $("src").scrollTop; });
  $("count").addEventListener("input", schedule);
  $("width").addEventListener("input", schedule);
  $("file").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    $("src").value = await f.text();
    update();
  });

  const go = new Go();
  let bytes;
  if (window.DDT_WASM_BASE64) { // the single-file page written by ddt serve --export
    const bin = atob(window.DDT_WASM_BASE64);
    const buf = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) buf[i] = bin.charCodeAt(i);
    bytes = Promise.resolve(buf.buffer);
  } else {
    bytes = fetch("ddt.wasm").then((r) => {
      if (!r.ok) throw new Error("ddt.wasm: HTTP " + r.status);
      return r.arrayBuffer();
    });
  }
  bytes
    .then((b) => WebAssembly.instantiate(b, go.importObject))
    .then((r) => go.run(r.instance))
    .catch((e) => setStatus("could not load the WebAssembly program: " + e));
}

init();

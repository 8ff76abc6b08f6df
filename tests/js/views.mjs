// What the tests compare of a parse or a check: the same views as tests/test_exposure.py builds.
export const commandText = (v) => (typeof v === "object" && v !== null
  ? v.text + v.then.repeat(v.times) + (v.close || "").repeat(v.times) + (v.tail || "") : v);

function written(e) {
  if (e.kwarg) return `${e.written}=${e.raw}`;
  return e.written + (e.raw !== null && e.raw !== "" ? ` ${e.raw}` : "");
}

export function parseView(p) {
  const flags = {}, values = {}, env = {};
  for (const [k, e] of Object.entries(p.flags)) {
    flags[k] = written(e);
    values[k] = e.dynamic ? null : e.value;
  }
  for (const [k, v] of Object.entries(p.env)) env[k] = v.value;
  return {
    error: p.error, program: p.program, flags, values, env,
    findings: p.findings.map((f) => f.message), finding_codes: p.findings.map((f) => f.code),
    opaque: [...p.opaque, ...p.env_opaque], image_version: p.image ? p.image.version : null,
  };
}

export function checkView(o) {
  return {
    error: o.error,
    results: o.results.map((r) => {
      const item = { id: r.id, result: r.result, why: r.why, undecided: r.undecided, add: r.add };
      if (r.note) item.note = r.note;
      return item;
    }),
    findings: o.findings.map((f) => f.message), finding_codes: o.findings.map((f) => f.code),
    notes: o.notes, not_checkable: o.not_checkable, unconditioned: o.unconditioned,
    does_not_apply: o.does_not_apply ?? [],
    ruled_out: o.ruled_out ?? {},
  };
}

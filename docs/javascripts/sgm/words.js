// @ts-check
/* Words rendered from Python, filled in: finder.json's `words` (opsmanual/data/finder_words.py). A
   template names its values in braces; a word that depends on a count has a `<key>_one` and a
   `<key>_many` form. DOM-free. */

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

/* `template` with each `{name}` replaced by its value in `values`; an unknown name stays as written.
   One pass: a value's own braces are never filled (opsmanual/data/exposure_words.py fill). */
export function fill(template, values = {}) {
  return template.replace(/\{([^{}]*)\}/g, (whole, name) => (hasOwn(values, name) ? String(values[name]) : whole));
}

/* The word `key` of `words`, filled in. */
export function say(words, key, values) {
  return fill(words[key], values);
}

/* The form of `key` for the count `n`, filled in with `n` and `values`. */
export function counted(words, key, n, values = {}) {
  return fill(words[`${key}_${n === 1 ? "one" : "many"}`], { ...values, n });
}

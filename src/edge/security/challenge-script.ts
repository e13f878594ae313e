// The challenge page's only script, inline and static (its hash goes into the page's
// Content-Security-Policy). It reads the form the edge rendered, solves, fills in
// `nonce` and submits; the browser follows the edge's 303 back to the original URL.
//   bits 0 (level 1): nonce = hex SHA-256(token): proves a browser ran the script.
//   bits n (levels 2-6): nonce = a decimal number such that SHA-256(token + nonce)
//   starts with n zero bits.
// SHA-256 comes from crypto.subtle where the page is a secure context (https,
// localhost); plain-HTTP pages have no crypto.subtle, so a small pure-JS SHA-256
// (FIPS 180-4) stands in: the edge serves plain HTTP too.

/** The script's source, byte for byte what the page embeds and the CSP hash covers. */
export const CHALLENGE_SCRIPT = `(() => {
  'use strict';
  const form = document.getElementById('cdn-challenge');
  const status = document.getElementById('cdn-status');
  const bits = Number(form.dataset.bits);
  const token = form.elements.token.value;
  const encoder = new TextEncoder();
  const subtle = window.isSecureContext && window.crypto && window.crypto.subtle;

  const K = [], H = [];
  (() => {
    const fraction = (x) => ((x - Math.floor(x)) * 4294967296) >>> 0;
    for (let n = 2, found = 0; found < 64; n++) {
      let prime = true;
      for (let d = 2; d * d <= n; d++) if (n % d === 0) { prime = false; break; }
      if (!prime) continue;
      if (found < 8) H[found] = fraction(Math.pow(n, 1 / 2));
      K[found++] = fraction(Math.cbrt(n));
    }
  })();
  const W = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  function sha256js(bytes) {
    const length = bytes.length, words = ((length + 9 + 63) >> 6) << 4, m = new Uint32Array(words);
    for (let i = 0; i < length; i++) m[i >> 2] |= bytes[i] << (24 - (i & 3) * 8);
    m[length >> 2] |= 0x80 << (24 - (length & 3) * 8);
    m[words - 1] = length * 8;
    const h = H.slice();
    for (let j = 0; j < words; j += 16) {
      for (let i = 0; i < 64; i++) {
        if (i < 16) W[i] = m[j + i];
        else {
          const a = W[i - 15], b = W[i - 2];
          W[i] = (rotr(a, 7) ^ rotr(a, 18) ^ (a >>> 3)) + (rotr(b, 17) ^ rotr(b, 19) ^ (b >>> 10)) + W[i - 7] + W[i - 16];
        }
      }
      let [a, b, c, d, e, f, g, k] = h;
      for (let i = 0; i < 64; i++) {
        const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h[0] = (h[0] + a) | 0; h[1] = (h[1] + b) | 0; h[2] = (h[2] + c) | 0; h[3] = (h[3] + d) | 0;
      h[4] = (h[4] + e) | 0; h[5] = (h[5] + f) | 0; h[6] = (h[6] + g) | 0; h[7] = (h[7] + k) | 0;
    }
    const out = new Uint8Array(32);
    for (let i = 0; i < 32; i++) out[i] = h[i >> 2] >>> (24 - (i & 3) * 8);
    return out;
  }
  const digest = async (text) => subtle ? new Uint8Array(await subtle.digest('SHA-256', encoder.encode(text))) : sha256js(encoder.encode(text));
  const hex = (bytes) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  function leadingZeros(bytes, need) {
    let i = 0;
    for (; need >= 8; need -= 8) if (bytes[i++] !== 0) return false;
    return need === 0 || bytes[i] >> (8 - need) === 0;
  }
  async function search() {
    const batch = 256;
    for (let base = 0; ; base += batch) {
      if (subtle) {
        const pending = [];
        for (let i = 0; i < batch; i++) pending.push(subtle.digest('SHA-256', encoder.encode(token + (base + i))));
        const results = await Promise.all(pending);
        for (let i = 0; i < batch; i++) if (leadingZeros(new Uint8Array(results[i]), bits)) return String(base + i);
      } else {
        for (let i = 0; i < batch; i++) if (leadingZeros(sha256js(encoder.encode(token + (base + i))), bits)) return String(base + i);
        if (base % 16384 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      }
    }
  }
  (async () => {
    try {
      form.elements.nonce.value = bits === 0 ? hex(await digest(token)) : await search();
      form.submit();
    } catch (error) {
      status.textContent = 'Your browser could not complete the check. Reload the page to try again.';
    }
  })();
})();`;

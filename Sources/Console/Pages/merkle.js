// RFC 9162 §2.1.3.2: checks in the browser, with its own SHA-256 (Web Crypto), that an audit entry's
// leaf hash is in the log whose root the daemon states. The page does not take the daemon's word for
// it; an auditor can run the same check with 'vaultctl audit check-inclusion' and no vault.
const fromBase64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

async function node(left, right) {
  const joined = new Uint8Array(1 + left.length + right.length);
  joined[0] = 1;
  joined.set(left, 1);
  joined.set(right, 1 + left.length);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", joined));
}

const odd = (n) => n % 2 === 1;
const half = (n) => Math.floor(n / 2);

// True when `proof` (as /api/audit/entries/N/proof answers it) leads from the leaf to the root.
export async function verifyInclusion(proof) {
  if (!(proof.index >= 0 && proof.index < proof.size)) return false;
  let fn = proof.index, sn = proof.size - 1, hash = fromBase64(proof.leaf_hash);
  for (const sibling of proof.proof.map(fromBase64)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      hash = await node(sibling, hash);
      while (!odd(fn) && fn !== 0) { fn = half(fn); sn = half(sn); }
    } else {
      hash = await node(hash, sibling);
    }
    fn = half(fn);
    sn = half(sn);
  }
  const root = fromBase64(proof.root);
  return sn === 0 && hash.length === root.length && hash.every((byte, i) => byte === root[i]);
}

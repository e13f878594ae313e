// The second of the wall clock a request arrived in, which its usage and security events carry.
// Read once a second, not once a request (as Node's own Date header is): the clock is a call into
// V8's runtime, some 0.4% of a worker's CPU on a cached HIT. A timer forgets the second at the next
// one's start; a request handled before the timer runs (the worker busy at that instant) is counted
// in the second before, as Node's Date header would name it.
let second: number | undefined;

function forget(): void {
  second = undefined;
}

/** The current Unix second (remembered until the timer at the next one's start runs). */
export function arrivalSecond(): number {
  if (second === undefined) {
    const now = Date.now();
    second = Math.floor(now / 1000);
    setTimeout(forget, 1000 - (now % 1000)).unref();
  }
  return second;
}

-- wrk script of `npm run bench:tls`: wrk sends the URL's host as SNI, but resolves it first and the
-- bench's names are in no DNS; every connection goes to 127.0.0.1 instead.
function wrk.resolve(host, service)
  wrk.addrs = wrk.lookup("127.0.0.1", service)
end

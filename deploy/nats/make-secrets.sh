#!/bin/sh
# Makes what the shipped nats.conf and the service nodes need: a CA, a certificate for each NATS machine (for
# clients and for routes), and the passwords of accounts.conf's users.
#
#   deploy/nats/make-secrets.sh OUT nats-1.internal nats-2.internal nats-3.internal
#
# OUT/ca.pem                 the CA every client checks the servers against (NATS_TLS_CA_FILE)
# OUT/ca-key.pem             the CA's key: keep it off the servers, it signs every certificate
# OUT/HOST/tls/              certificate, key and CA of one NATS machine: its /etc/nats/tls/
# OUT/nats.env               the users' passwords for the NATS machines: /etc/nats/nats.env, root only
# OUT/node.password          a service node's password (NATS_USER=node, NATS_PASSWORD_FILE)
# OUT/operator.password      the operator user's password, for humans and tools
# OUT/eraser.password        the eraser user's password: the control worker's, for an erasure's removals
#                            (NATS_ERASER_PASSWORD_FILE)
# OUT/log.secret             the secret every node seals and opens the log's entries with (NATS_LOG_SECRET_FILE):
#                            the same file on every node, root or the service's user only; back it up with the
#                            NATS stores (without it no node can read a restored log)
#
# HOST may name one machine several ways, comma-separated (`nats-1.internal,10.0.0.11`): each name goes in its
# certificate, an IPv4 address as an address, any other as a DNS name; the first names its folder. Existing
# files are kept, so running it again with one more host adds that host's certificate only.
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OUT HOST [HOST ...]" >&2; exit 64; }
out=$1
shift
umask 077
mkdir -p "$out"

# Letters only: nats-server parses a value from the environment as configuration, where digits could make a number.
password() {
  openssl rand -base64 96 | tr -dc 'A-Za-z' | cut -c1-32
}

if [ ! -f "$out/ca.pem" ]; then
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -days 3650 \
    -subj "/CN=svc NATS CA" -keyout "$out/ca-key.pem" -out "$out/ca.pem" 2>/dev/null
fi

for names in "$@"; do
  host=${names%%,*}
  dir="$out/$host/tls"
  [ -f "$dir/server-cert.pem" ] && continue
  mkdir -p "$dir"
  san=
  for name in $(echo "$names" | tr ',' ' '); do
    case $name in
      *[!0-9.]*) san="$san${san:+,}DNS:$name" ;;
      *) san="$san${san:+,}IP:$name" ;;
    esac
  done
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -subj "/CN=$host" \
    -keyout "$dir/server-key.pem" -out "$dir/server.csr" 2>/dev/null
  # clientAuth as well: a server presents this certificate when it dials a route to a peer.
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\nkeyUsage=digitalSignature\n' "$san" > "$dir/server.ext"
  openssl x509 -req -in "$dir/server.csr" -CA "$out/ca.pem" -CAkey "$out/ca-key.pem" -CAcreateserial \
    -days 825 -sha256 -extfile "$dir/server.ext" -out "$dir/server-cert.pem" 2>/dev/null
  rm "$dir/server.csr" "$dir/server.ext"
  cp "$out/ca.pem" "$dir/ca.pem"
done

# Each user's password once; nats.env is written anew from them, so a user added to accounts.conf later gets one.
for user in node operator eraser; do
  [ -f "$out/$user.password" ] || password > "$out/$user.password"
done
printf 'SVC_NODE_PASSWORD=%s\nSVC_OPERATOR_PASSWORD=%s\nSVC_ERASER_PASSWORD=%s\n' \
  "$(cat "$out/node.password")" "$(cat "$out/operator.password")" "$(cat "$out/eraser.password")" > "$out/nats.env"

if [ ! -f "$out/log.secret" ]; then
  openssl rand -hex 32 > "$out/log.secret"
fi

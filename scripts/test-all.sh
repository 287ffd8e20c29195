#!/usr/bin/env bash
# The whole suite on a fresh machine: checks what the tests need (Node, the programs they call, PostgreSQL
# as they connect to it), brings what is missing when it may (root, or sudo without a password, on
# Debian/Ubuntu), then runs `npm ci` and `npm test`. When it may not, it prints one line per missing thing
# and runs nothing. Where everything is in place it changes nothing.
#
#   EFR_SETUP_ONLY=1   stop once the prerequisites are in place, before npm ci
#   EFR_TEST_PG=URL    the PostgreSQL the tests use (default below); another server is only checked, never set up
set -euo pipefail
cd "$(dirname "$0")/.."

PG_DEFAULT=postgres://postgres@127.0.0.1:5432/test
PG_URL=${EFR_TEST_PG:-$PG_DEFAULT}

is_root=0
[ "$(id -u)" -eq 0 ] && is_root=1
# how to act as root: root itself, or sudo that asks no password (a prompt would hang CI)
sudo=()
can_root=1
if [ "$is_root" -eq 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n); else can_root=0; fi
fi
debian=0
if [ -r /etc/os-release ] && command -v apt-get >/dev/null 2>&1; then
  case " $(. /etc/os-release && echo "${ID:-} ${ID_LIKE:-}") " in *" debian "* | *" ubuntu "*) debian=1 ;; esac
fi
ubuntu=0
[ -r /etc/os-release ] && [ "$(. /etc/os-release && echo "${ID:-}")" = ubuntu ] && ubuntu=1
can_install=$((can_root && debian))

blocking=()  # what this script cannot bring, one line each
missing=()   # programs a package brings, one line each
packages=()  # those packages

# --- Node: nothing here installs it (Debian 12 and Ubuntu 24.04 ship Node 18)
node_req=$(sed -n 's/^ *"node": *">= *\([0-9.]*\)".*/\1/p' package.json | head -n 1)
node_req=${node_req:-20}
if ! command -v node >/dev/null 2>&1; then
  blocking+=("missing: Node.js >= $node_req with npm (nodejs.org or NodeSource; the distribution's nodejs may be older)")
elif ! node -e '
  const have = process.versions.node.split(".").map(Number), want = process.argv[1].split(".").map(Number);
  for (let i = 0; i < 3; i++) if ((have[i] || 0) !== (want[i] || 0)) process.exit((have[i] || 0) > (want[i] || 0) ? 0 : 1);' "$node_req"; then
  blocking+=("missing: Node.js >= $node_req (this is $(node --version); package.json engines)")
elif ! command -v npm >/dev/null 2>&1; then
  blocking+=("missing: npm (it comes with Node from nodejs.org)")
fi

# PostgreSQL answers as the tests connect: without a password, over TCP
pg_error=''
pg_check() {
  pg_error=$(PGCONNECT_TIMEOUT=5 psql -X -w -q -At "$PG_URL" -c 'select 1' 2>&1 >/dev/null) && return 0
  pg_error=$(printf '%s' "$pg_error" | sed 's/^psql: error: //' | head -n 1)
  return 1
}

# --- programs the tests call; `need <program> <package> <what for>`
need() {
  if [ "${1#/}" != "$1" ]; then [ -x "$1" ] && return 0; else command -v "$1" >/dev/null 2>&1 && return 0; fi
  missing+=("missing: $1 (Debian: $2) - $3")
  case " ${packages[*]-} " in *" $2 "*) ;; *) packages+=("$2") ;; esac
}
check_programs() {
  need openssl openssl 'TSE, TLS and signature checks'
  need xmllint libxml2-utils 'the XSD/DTD validation of the exports'
  need pdftotext poppler-utils 'reading the rendered PDFs'
  need pdftoppm poppler-utils 'rasterizing the PDF QR codes'
  need pdffonts poppler-utils 'the embedded fonts of the PDFs'
  # the official EN 16931 and XRechnung rules run over the e-invoices with Saxon-HE (test/einvoice.e2e.test.ts)
  need java default-jre-headless 'running Saxon-HE over the e-invoices'
  if [ ! -r /usr/share/java/Saxon-HE.jar ]; then
    missing+=("missing: /usr/share/java/Saxon-HE.jar (Debian: libsaxonhe-java) - the e-invoice validation rules")
    case " ${packages[*]-} " in *" libsaxonhe-java "*) ;; *) packages+=("libsaxonhe-java") ;; esac
  fi
  # playwright-core launches this path; Ubuntu's chromium is a snap that installs elsewhere
  if [ "$ubuntu" -eq 0 ]; then
    need /usr/bin/chromium chromium 'the browser tests'
  elif [ ! -x /usr/bin/chromium ]; then
    blocking+=("missing: /usr/bin/chromium - the browser tests (Ubuntu's chromium is a snap: link its binary there)")
  fi
  # npm builds the SQLite binding from source when no prebuilt binary is downloaded
  need python3 python3 'building better-sqlite3'
  need make make 'building better-sqlite3'
  need g++ g++ 'building better-sqlite3'
  if [ "$PG_URL" = "$PG_DEFAULT" ]; then
    need psql postgresql 'the PostgreSQL journal and portal store tests'
    # a server that already answers may be anywhere; otherwise the local one is set up
    if command -v psql >/dev/null 2>&1 && ! pg_check; then
      need pg_ctlcluster postgresql 'the PostgreSQL server of the tests'
    fi
  else
    need psql postgresql-client 'checking EFR_TEST_PG'
  fi
  # the network-namespace tests run only as root (they skip otherwise)
  if [ "$is_root" -eq 1 ]; then
    need ip iproute2 'the network-namespace tests (another machine on the LAN)'
    need curl curl 'requests from inside the network namespace'
  fi
}
check_programs

if [ "${#packages[@]}" -gt 0 ] && [ "$can_install" -eq 1 ] && [ "${#blocking[@]}" -eq 0 ]; then
  echo "installing ${packages[*]}"
  "${sudo[@]}" apt-get -q update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}"
  missing=()
  packages=()
  check_programs
fi

# --- PostgreSQL: the local cluster started, the database made, trusted on 127.0.0.1
as_postgres() {
  if [ "$is_root" -eq 1 ]; then runuser -u postgres -- "$@"; else sudo -n -u postgres "$@"; fi
}
pg_setup() {
  local v
  v=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$v" ] || [ ! -d "/etc/postgresql/$v/main" ]; then
    v=${v:-$(ls /usr/lib/postgresql | sort -V | tail -n 1)}
    echo "creating the PostgreSQL $v cluster main"
    "${sudo[@]}" pg_createcluster "$v" main || return 1
  fi
  if ! "${sudo[@]}" pg_ctlcluster "$v" main status >/dev/null 2>&1; then
    echo "starting PostgreSQL $v"
    "${sudo[@]}" pg_ctlcluster --skip-systemctl-redirect "$v" main start || return 1
  fi
  pg_check && return 0
  local psql=(psql --cluster "$v/main" -X -q -At -d postgres)
  if [ -z "$(as_postgres "${psql[@]}" -c "select 1 from pg_database where datname = 'test'")" ]; then
    echo "creating the database test"
    as_postgres "${psql[@]}" -c 'create database test' || return 1
  fi
  pg_check && return 0
  case "$pg_error" in *password* | *pg_hba.conf* | *authentication*) ;; *) return 1 ;; esac
  # the tests' URL has no password: trust this one database and role on the loopback address, ahead of
  # the rules that would ask for one (the first matching line of pg_hba.conf decides)
  local hba rule='host    test            postgres        127.0.0.1/32            trust'
  hba=$(as_postgres "${psql[@]}" -c 'show hba_file') && [ -n "$hba" ] || return 1
  if ! "${sudo[@]}" grep -qxF "$rule" "$hba"; then
    echo "trusting role postgres, database test on 127.0.0.1 in $hba"
    local tmp
    tmp=$(mktemp) || return 1
    "${sudo[@]}" cat "$hba" | awk -v rule="$rule" '
      !done && /^[ \t]*[^# \t]/ { print "# the efr tests connect without a password (scripts/test-all.sh)"; print rule; done = 1 }
      { print }
      END { if (!done) print rule }' >"$tmp" || return 1
    "${sudo[@]}" cp -p "$hba" "$hba.before-efr" && "${sudo[@]}" cp "$tmp" "$hba" || return 1
    rm -f "$tmp"
    "${sudo[@]}" pg_ctlcluster --skip-systemctl-redirect "$v" main reload || return 1
  fi
  pg_check
}
pg_line="missing: PostgreSQL reachable at 127.0.0.1:5432 as postgres, database test (Debian: postgresql; createdb test; 'host test postgres 127.0.0.1/32 trust' in pg_hba.conf; or set EFR_TEST_PG)"
[ "$PG_URL" = "$PG_DEFAULT" ] || pg_line="missing: PostgreSQL reachable at EFR_TEST_PG"
if command -v psql >/dev/null 2>&1 && ! pg_check; then
  if [ "${#blocking[@]}" -eq 0 ] && [ "${#missing[@]}" -eq 0 ] && [ "$can_install" -eq 1 ] && [ "$PG_URL" = "$PG_DEFAULT" ]; then
    pg_setup || missing+=("$pg_line: $pg_error")
  else
    missing+=("$pg_line: $pg_error")
  fi
fi

missing=("${blocking[@]}" "${missing[@]}")
if [ "${#missing[@]}" -gt 0 ]; then
  printf '%s\n' "${missing[@]}" >&2
  if [ "${#packages[@]}" -gt 0 ]; then
    echo "install them with: apt-get install ${packages[*]} (as root on Debian/Ubuntu this script does)" >&2
  fi
  exit 1
fi
[ "$is_root" -eq 1 ] || echo "not root: the network-namespace tests (requests from another machine) and the full-disk test are skipped"

if [ "${EFR_SETUP_ONLY:-}" = 1 ]; then
  echo "prerequisites in place (EFR_SETUP_ONLY=1: npm ci and npm test not run)"
  exit 0
fi
npm ci
npm test

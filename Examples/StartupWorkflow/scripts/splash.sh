#!/bin/sh
# The splash animation.
sleep 0.1
echo "splash shown"

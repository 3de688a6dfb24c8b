#!/usr/bin/env node
require('./check-node.js').enforce();
require('../dist/cli.js');

// The Node.js floor, checked before any bundle loads (a bundle parsed by a too-old Node fails with a stack, not a
// sentence). Written in old syntax on purpose: it has to run on the Nodes it refuses.
// pdf.js declares Node >= 22.13 (package.json engines follows it); the whole suite also passes on Node 20, so 20
// is warned about, not refused. Below 20 nothing is tested: refused.
'use strict';

var WANTED = [22, 13];
var FLOOR = 20;

/** { level: 'ok' | 'warn' | 'refuse', message } for a version string such as 'v20.20.2'. */
function checkNode(version) {
  var parts = String(version).replace(/^v/, '').split('.');
  var major = Number(parts[0]);
  var minor = Number(parts[1]);
  var wanted = 'Node.js ' + WANTED.join('.') + ' or newer';
  if (!(major >= FLOOR))
    return {
      level: 'refuse',
      message: 'Study Bridge needs ' + wanted + ' (this is ' + version + '). Install Node.js 22 or 24 and try again.',
    };
  if (major < WANTED[0] || (major === WANTED[0] && minor < WANTED[1]))
    return {
      level: 'warn',
      message:
        'Study Bridge: ' +
        version +
        ' is older than the ' +
        wanted +
        ' its PDF library declares; it runs, but upgrade to Node.js 22 or 24.',
    };
  return { level: 'ok', message: '' };
}

/** Prints the message (one line on stderr); a refusal ends the process with status 1. */
function enforce() {
  var result = checkNode(process.version);
  if (result.level !== 'ok') process.stderr.write(result.message + '\n');
  if (result.level === 'refuse') process.exit(1);
}

module.exports = { checkNode: checkNode, enforce: enforce };
if (require.main === module) enforce();

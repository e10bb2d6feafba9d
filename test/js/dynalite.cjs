// Runs dynalite (pinned in package.json) for the Go tests, with its own
// command-line flags (node dynalite.cjs --port N ...).
//
// dynalite's request handler rethrows a request's 'error' event
// (index.js: `req.on('error', function (err) { throw err })`), so a client
// that drops a connection while its request body is still arriving (a Go
// context cancelled under load) ends the whole server, and every later
// request of every test fails with "connection refused". DynamoDB itself
// shrugs such a client off; so does this launcher: an aborted request is
// logged and the server keeps serving. Any other uncaught error still ends
// the process, as before.
'use strict'

process.on('uncaughtException', (err) => {
  if (err && err.code === 'ECONNRESET') {
    console.error(`dynalite: a client aborted its request (${err.message}); still serving`)
    return
  }
  console.error(err)
  process.exit(1)
})

require('./node_modules/dynalite/cli.js')

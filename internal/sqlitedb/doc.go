// Package sqlitedb opens the SQLite files idemspec keeps (the fakes'
// store, the retrying client's journal) the one way that makes a commit
// durable before the call that made it returns.
package sqlitedb

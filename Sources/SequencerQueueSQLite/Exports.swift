// `import SequencerQueueSQLite` is all an app with the embedded queue needs: the queue's
// interface comes with its SQLite driver, as `SequencerPostgres` users import the interface and
// their driver, and link no GRDB.
@_exported public import SequencerQueue

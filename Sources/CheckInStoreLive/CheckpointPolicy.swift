/// When the store moves its write-ahead log into the main file: the rule alone, fed with what
/// happened and asked what to do whenever the store thread is idle after work.
///
/// Why not leave it to SQLite: its automatic checkpoint runs inside a COMMIT (so inside an
/// acknowledgement) and only at 1,000 pages, so the main file stayed nearly empty, the WAL held
/// the whole history (a damaged WAL lost everything) and grew until a small disk was full. Here a
/// checkpoint runs only after the caller of a write has been answered, often enough that the main
/// file holds all but the last few commits, and the WAL is truncated when it has grown large or
/// something failed (a full disk), so its space comes back once the disk has room again.
struct CheckpointPolicy: Hashable, Sendable {
    enum Checkpoint: Hashable, Sendable {
        /// Copy what the WAL holds into the main file; the WAL is then rewritten from its start.
        case passive
        /// The same, then truncate the WAL file to zero bytes, giving its disk space back.
        case truncate
    }

    /// A checkpoint once this many commits are not in the main file yet. Small, so a damaged WAL
    /// can only cost the last few commits; not 1, so a burst of writes costs one checkpoint (one
    /// extra fsync of the main file) rather than one each.
    var commitsPerCheckpoint = 4
    /// A WAL file larger than this (after a large batch) is truncated rather than kept.
    var walSizeLimit: Int64 = 256 * 1024
    /// SQLite's `journal_size_limit`: when a commit starts the WAL over, SQLite trims the file to
    /// this. Above what a few check-ins fill, so that the WAL is normally rewritten in place
    /// (an fsync after an overwrite is cheaper than after an append that grows the file).
    static let journalSizeLimit: Int64 = 128 * 1024

    /// Commits since the last complete checkpoint.
    private(set) var commitsBehind = 0
    /// A write or a checkpoint failed since the last complete TRUNCATE: free the WAL's space.
    private(set) var mustTruncate = false
    /// Something happened since the last attempt. A checkpoint that failed is tried again after
    /// the next write, not at every idle moment (a status read must not retry it each time).
    private(set) var attemptDue = false

    /// A write transaction committed.
    mutating func committed() {
        commitsBehind += 1
        attemptDue = true
    }

    /// A write failed in a way that may have left the WAL grown or the disk full.
    mutating func writeFailed() {
        mustTruncate = true
        attemptDue = true
    }

    /// What to run now that the store is idle, given the WAL file's size (nil: no WAL file).
    func next(walFileSize: Int64?) -> Checkpoint? {
        guard attemptDue else { return nil }
        if mustTruncate || (walFileSize ?? 0) > walSizeLimit { return .truncate }
        if commitsBehind >= commitsPerCheckpoint { return .passive }
        return nil
    }

    /// The checkpoint `next` asked for ran; `complete` when the main file now holds every commit.
    mutating func ran(_ checkpoint: Checkpoint, complete: Bool) {
        attemptDue = false
        guard complete else { return }
        commitsBehind = 0
        if checkpoint == .truncate { mustTruncate = false }
    }

    /// The checkpoint failed (e.g. the main file cannot grow on a full disk): truncate when next tried.
    mutating func failed() {
        attemptDue = false
        mustTruncate = true
    }
}

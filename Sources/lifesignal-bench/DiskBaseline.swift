import Glibc
import LinuxIO

/// What one durable write costs on this disk without SQLite or the daemon, as a reference for the
/// acknowledgement latency (which waits for an fsync).
enum DiskBaseline {
    /// Write 4 KiB at the end of a file and fdatasync it, `count` times. Appending also changes
    /// the file size (metadata to write), so it can cost more than a commit into a reused WAL.
    static func measure(in folder: String, count: Int = 200) throws -> Sample {
        try timedSyncs(in: folder, count: count, preallocate: 0) { descriptor, _, page in
            page.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }

    /// A WAL commit's shape: four 4 KiB pages written in place into a file that already has its
    /// size (as SQLite reuses its WAL), then fdatasync; `count` times, cycling through 4 MiB.
    /// With `spacing`, the disk idles that long before each commit (the sleep is not timed), as
    /// it does between presses: on this VM an fdatasync after an idle pause costs several times
    /// one that follows another at once, so the back-to-back figure flatters the disk.
    static func measureInPlace(in folder: String, count: Int = 1000, spacing: Duration = .zero) throws -> Sample {
        let pagesPerCommit = 4, pagesInFile = 1024
        return try timedSyncs(in: folder, count: count, preallocate: pagesInFile, spacing: spacing) { descriptor, index, page in
            for slot in 0..<pagesPerCommit {
                let offset = off_t(((index * pagesPerCommit + slot) % pagesInFile) * page.count)
                let result = page.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, offset) }
                guard result == page.count else { return result }
            }
            return page.count  // checked against one page by the caller
        }
    }

    private static func timedSyncs(
        in folder: String, count: Int, preallocate pages: Int, spacing: Duration = .zero,
        write: (Int32, Int, [UInt8]) -> Int
    ) throws -> Sample {
        let path = folder + "/fsync-baseline"
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SystemError.current("open", path) }
        defer {
            close(descriptor)
            unlink(path)
        }
        let page = [UInt8](repeating: 0x5a, count: 4096)
        if pages > 0 {
            for _ in 0..<pages {
                guard page.withUnsafeBytes({ Glibc.write(descriptor, $0.baseAddress, $0.count) }) == page.count else {
                    throw SystemError.current("write", path)
                }
            }
            guard fsync(descriptor) == 0 else { throw SystemError.current("fsync", path) }
        }
        var sample = Sample()
        for index in 0..<count {
            if spacing > .zero { pause(spacing) }  // blocks the thread: nothing else runs in the bench meanwhile
            let start = monotonic()
            guard write(descriptor, index, page) == page.count else { throw SystemError.current("write", path) }
            guard fdatasync(descriptor) == 0 else { throw SystemError.current("fdatasync", path) }
            sample.add(monotonic() - start)
        }
        return sample
    }
}

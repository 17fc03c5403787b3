import Glibc
import LinuxIO

/// What one durable write costs on this disk without SQLite or the daemon: write 4 KiB at the end
/// of a file and fdatasync it, `count` times. A reference for the acknowledgement latency, which
/// waits for an fsync; appending also changes the file size, so it can cost more than SQLite's
/// commit into a WAL file it reuses.
enum DiskBaseline {
    static func measure(in folder: String, count: Int = 200) throws -> Sample {
        let path = folder + "/fsync-baseline"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SystemError.current("open", path) }
        defer {
            close(descriptor)
            unlink(path)
        }
        let page = [UInt8](repeating: 0x5a, count: 4096)
        var sample = Sample()
        for _ in 0..<count {
            let start = monotonic()
            let written = page.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == page.count else { throw SystemError.current("write", path) }
            guard fdatasync(descriptor) == 0 else { throw SystemError.current("fdatasync", path) }
            sample.add(monotonic() - start)
        }
        return sample
    }
}

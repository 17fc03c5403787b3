import Glibc

/// What /proc says about a running process: memory, context switches of every thread, disk writes.
enum ProcFS {
    /// Reads a whole /proc file (their size is reported as 0, so read until EOF).
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The number after `key:` in a "key: value" file such as status or io (kB units dropped).
    static func field(_ key: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
            let value = line.dropFirst(key.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return value.flatMap { Int($0) }
        }
        return nil
    }

    /// How many descriptors the process has open (entries of /proc/PID/fd).
    static func openDescriptors(_ pid: pid_t) -> Int? {
        guard let directory = opendir("/proc/\(pid)/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return count - 2  // "." and ".."
    }

    /// Resident memory in kB.
    static func residentKilobytes(_ pid: pid_t) -> Int? {
        read("/proc/\(pid)/status").flatMap { field("VmRSS", in: $0) }
    }

    /// VmRSS split as the kernel counts it: anonymous (heap, stacks), file-backed (the binary's
    /// and libraries' pages, reclaimable), shared memory; all in kB.
    static func residentBreakdown(_ pid: pid_t) -> String {
        guard let status = read("/proc/\(pid)/status") else { return "?" }
        let parts = ["RssAnon", "RssFile", "RssShmem"].map { key in
            "\(key.dropFirst(3).lowercased()) \(megabytes(kilobytes: field(key, in: status) ?? 0))"
        }
        return parts.joined(separator: ", ")
    }

    /// Resident kB per mapped file (and "[anon]" for the rest), largest first, from smaps.
    static func residentByMapping(_ pid: pid_t) -> [(name: String, kilobytes: Int)] {
        guard let smaps = read("/proc/\(pid)/smaps") else { return [] }
        var totals: [String: Int] = [:]
        var current = "[anon]"
        for line in smaps.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let first = fields.first else { continue }
            if first.contains("-"), fields.count >= 5 {
                // A mapping header: "start-end perms offset dev inode [path]".
                let path = fields.count >= 6 ? String(fields[5]) : "[anon]"
                current = path.hasPrefix("/") ? String(path.split(separator: "/").last ?? "") : "[anon]"
            } else if first == "Rss:", fields.count >= 2, let kilobytes = Int(fields[1]) {
                totals[current, default: 0] += kilobytes
            }
        }
        return totals.map { ($0.key, $0.value) }.sorted { $0.kilobytes > $1.kilobytes }
    }

    /// CPU time the process has used so far, user and system (all its threads, from /proc/PID/stat).
    static func cpuTime(_ pid: pid_t) -> (user: Duration, system: Duration)? {
        // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
        guard let stat = read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // utime and stime are fields 14 and 15 of the line, i.e. 11 and 12 after the command name.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        let ticksPerSecond = Int(sysconf(Int32(_SC_CLK_TCK)))
        func duration(_ ticks: Int) -> Duration { .milliseconds(ticks * 1000 / max(ticksPerSecond, 1)) }
        return (duration(user), duration(system))
    }

    /// Bytes the process caused to be written to the storage layer.
    static func writeBytes(_ pid: pid_t) -> Int? {
        read("/proc/\(pid)/io").flatMap { field("write_bytes", in: $0) }
    }

    struct ThreadSwitches: Hashable {
        var tid: Int
        var name: String
        var switches: Int
    }

    /// Voluntary + involuntary context switches of each thread: each one is the thread being
    /// scheduled out, i.e. it had woken up (or was running) before.
    static func threadSwitches(_ pid: pid_t) -> [ThreadSwitches] {
        guard let directory = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(directory) }
        var result: [ThreadSwitches] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let tid = Int(name), let status = read("/proc/\(pid)/task/\(tid)/status") else { continue }
            let threadName = status.split(separator: "\n").first { $0.hasPrefix("Name:") }
                .map { $0.dropFirst(5).trimmingSpaces() } ?? "?"
            let switches = (field("voluntary_ctxt_switches", in: status) ?? 0)
                + (field("nonvoluntary_ctxt_switches", in: status) ?? 0)
            result.append(ThreadSwitches(tid: tid, name: threadName, switches: switches))
        }
        return result.sorted { $0.tid < $1.tid }
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

import Glibc

/// Voluntary + involuntary context switches of this process's threads named `name` (their
/// `comm`), summed from /proc/self/task/*/status; nil if no such thread (or no /proc).
/// Tests use it to prove an idle poll thread never wakes.
public func contextSwitches(ofThreadsNamed name: String) -> Int? {
    guard let tasks = opendir("/proc/self/task") else { return nil }
    defer { closedir(tasks) }
    var total = 0
    var found = false
    while let entry = readdir(tasks) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        guard tid.first?.isNumber == true,
              case let .success(comm) = readTextFile("/proc/self/task/\(tid)/comm", limit: 256),
              comm.hasSuffix("\n") ? String(comm.dropLast()) == name : comm == name,
              case let .success(status) = readTextFile("/proc/self/task/\(tid)/status", limit: 65_536)
        else { continue }
        found = true
        // "voluntary_ctxt_switches:\t12" and "nonvoluntary_ctxt_switches:\t3".
        for line in status.split(separator: "\n") {
            let field = line.split(separator: ":", maxSplits: 1)
            guard field.count == 2, field[0].hasSuffix("ctxt_switches") else { continue }
            total += Int(field[1].filter { !$0.isWhitespace }) ?? 0
        }
    }
    return found ? total : nil
}

import Glibc
import XCTest

/// Waits (with a deadline) until a thread of this process named `name` sleeps in `poll`, by its
/// wait channel: the moment an idle poll thread can be watched for wake-ups.
public func waitUntilAsleepInPoll(threadNamed name: String, file: StaticString = #filePath, line: UInt = #line,
                                  isolation: isolated (any Actor)? = #isolation) async throws {
    try await waitUntil("the \(name) thread sleeps in poll", interval: .milliseconds(1), file: file, line: line) {
        waitChannels(ofThreadsNamed: name).contains { $0.contains("poll") }
    }
}

/// /proc/self/task/*/wchan of the threads named `name`: where in the kernel each one waits (empty or
/// "0" while it runs).
public func waitChannels(ofThreadsNamed name: String) -> [String] {
    guard let tasks = opendir("/proc/self/task") else { return [] }
    defer { closedir(tasks) }
    var channels: [String] = []
    while let entry = readdir(tasks) {
        var field = entry.pointee.d_name
        let tid = withUnsafeBytes(of: &field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard tid.first?.isNumber == true, procText("/proc/self/task/\(tid)/comm") == name else { continue }
        channels.append(procText("/proc/self/task/\(tid)/wchan"))
    }
    return channels
}

/// A short /proc file, without its trailing newline; empty if it cannot be read.
public func procText(_ path: String) -> String {
    let descriptor = open(path, O_RDONLY)
    guard descriptor >= 0 else { return "" }
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 256)
    let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    let text = String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
    return text.hasSuffix("\n") ? String(text.dropLast()) : text
}

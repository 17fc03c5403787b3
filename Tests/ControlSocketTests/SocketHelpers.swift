import Glibc
import XCTest

func fileMode(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode
}

/// Runs `body(index)` on `count` plain threads at once and waits for all of them. Blocking clients
/// must not run on the cooperative pool the server's handler needs.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Job {
        let index: Int
        let body: @Sendable (Int) -> Void
        init(_ index: Int, _ body: @escaping @Sendable (Int) -> Void) { self.index = index; self.body = body }
    }
    var threads: [pthread_t] = []
    for index in 0..<count {
        var thread = pthread_t()
        let job = Unmanaged.passRetained(Job(index, body)).toOpaque()
        let result = pthread_create(&thread, nil, { context in
            let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
            job.body(job.index)
            return nil
        }, job)
        precondition(result == 0, "pthread_create failed: \(result)")
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}

/// Leaves a socket file behind with nobody listening, as a crashed daemon would.
func makeStaleSocket(at path: String) throws {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        buffer.copyBytes(from: Array(path.utf8) + [0])
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    close(descriptor)
    guard bound == 0 else { throw XCTSkip("could not bind a stale socket: errno \(errno)") }
}

/// A raw client that connects and sends `bytes` but never finishes its line, then reads whatever
/// the server answers until it closes.
func sendIncompleteRequest(_ bytes: String, to path: String) throws -> String {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard connected == 0 else { throw XCTSkip("connect failed: errno \(errno)") }
    _ = send(descriptor, bytes, bytes.utf8.count, Int32(MSG_NOSIGNAL))
    var answer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1024)
    while true {
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { break }
        answer += chunk.prefix(count)
    }
    return String(decoding: answer, as: UTF8.self)
}

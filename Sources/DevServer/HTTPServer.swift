import Glibc
public import LinuxIO
import Synchronization

/// A small HTTP/1.1 server over POSIX sockets, for development and tests only: it listens on
/// 127.0.0.1, serves one request per connection (`Connection: close`) on a thread per connection,
/// and knows only `Content-Length` bodies. No TLS: put a real backend behind HTTPS.
public final class HTTPServer: Sendable {
    /// What to do with a request.
    public enum Outcome: Sendable {
        case respond(ServerResponse)
        /// Close the connection without a reply (fault injection).
        case drop
    }

    public typealias Handler = @Sendable (ServerRequest) -> Outcome

    /// The port it listens on (the one the kernel chose when asked for port 0).
    public let port: UInt16
    private let listener: Int32
    private let wakeup: WakeupEvent
    private let acceptThread: Mutex<DedicatedThread?> = Mutex(nil)
    private let connections = ConnectionThreads()
    static let maxHeaderBytes = 64 * 1024
    static let maxBodyBytes = 16 << 20

    /// Binds 127.0.0.1:`port` (0 = any free port) and starts accepting.
    public init(port: UInt16, handler: @escaping Handler) throws(SystemError) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .current("socket", "AF_INET") }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1 only, never a public interface
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let error = SystemError.current("bind/listen", "127.0.0.1:\(port)")
            close(descriptor)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        self.listener = descriptor
        do {
            wakeup = try WakeupEvent()
        } catch {
            close(descriptor)
            throw error
        }
        let wakeup = self.wakeup
        let connections = self.connections
        let thread = try DedicatedThread.start(name: "devserver-accept") {
            Self.acceptLoop(listener: descriptor, wakeup: wakeup, connections: connections, handler: handler)
        }
        acceptThread.withLock { $0 = thread }
    }

    /// Stops accepting, closes the listening socket, and returns once the requests in progress have
    /// been answered (each is bounded by its handler and the sockets' 10 s timeouts). A process that
    /// exits right after must not cut a connection's thread off mid-answer: the client would lose
    /// the reply, and LeakSanitizer reports what that thread held as leaked.
    public func stop() {
        wakeup.signal()
        acceptThread.withLock { $0 }?.join()
        connections.joinAll()
    }

    private static func acceptLoop(listener: Int32, wakeup: WakeupEvent, connections: ConnectionThreads,
                                   handler: @escaping Handler) {
        defer { close(listener) }
        while true {
            var fds = [pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            _ = retryingOnEINTR { poll(&fds, 2, -1) }
            if fds[0].revents != 0 { return }
            guard fds[1].revents != 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            // A thread per connection: a latency fault on one request must not stall the others.
            let key = connections.reserve()
            do {
                let thread = try DedicatedThread.start(name: "devserver-conn") {
                    serve(connection, handler: handler)
                    connections.finished(key)
                }
                connections.attach(thread, to: key)
            } catch {
                connections.finished(key)
                close(connection)
            }
        }
    }

    private static func serve(_ descriptor: Int32, handler: Handler) {
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let outcome: Outcome
        switch readRequest(descriptor) {
        case .closed:
            return
        case let .malformed(status, message):
            outcome = .respond(.error(status, message))
        case let .request(request):
            outcome = handler(request)
        }
        guard case let .respond(response) = outcome else { return }
        let bytes = response.serialized()
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            sent += count
        }
        shutdown(descriptor, Int32(SHUT_WR))
    }

    private enum ReadResult {
        case request(ServerRequest)
        case malformed(Int, String)
        case closed
    }

    private static func readRequest(_ descriptor: Int32) -> ReadResult {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .closed }
            let searchFrom = max(0, buffer.count - 3)
            buffer += chunk.prefix(count)
            headerEnd = buffer[searchFrom...].firstRange(of: separator)?.lowerBound
            if headerEnd == nil && buffer.count > maxHeaderBytes { return .malformed(431, "request header too large") }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else {
            return .malformed(400, "malformed request line")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return .malformed(400, "malformed header line") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingSpaces()
        }
        if headers["transfer-encoding"] != nil { return .malformed(501, "chunked request bodies are not supported; send Content-Length") }
        let length = Int(headers["content-length"] ?? "0") ?? -1
        guard (0...maxBodyBytes).contains(length) else { return .malformed(413, "Content-Length missing or above \(maxBodyBytes)") }
        var body = Array(buffer[(headerEnd! + 4)...])
        while body.count < length {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, min($0.count, length - body.count), 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return .closed }
            body += chunk.prefix(count)
        }
        let target = String(requestLine[1])
        let (path, query) = splitTarget(target)
        return .request(ServerRequest(method: String(requestLine[0]), path: path, query: query, headers: headers,
                                      body: Array(body.prefix(length))))
    }

    private static func splitTarget(_ target: String) -> (String, [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            // Keeps empty parts: "=", "=x" and "x=" are all possible (and "=" once crashed this server).
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return (String(target[..<mark]), query)
    }
}

/// The threads serving connections, so that `stop()` can wait for them. A thread leaves the table
/// when its connection is done; it may end before the accept loop has attached it, hence the
/// reserved key.
final class ConnectionThreads: Sendable {
    private struct Table {
        var nextKey = 0
        var running: [Int: DedicatedThread] = [:]
        /// Reserved, and not yet attached or finished.
        var starting: Set<Int> = []
    }

    private let table = Mutex(Table())

    func reserve() -> Int {
        table.withLock { table in
            table.nextKey += 1
            table.starting.insert(table.nextKey)
            return table.nextKey
        }
    }

    func attach(_ thread: DedicatedThread, to key: Int) {
        table.withLock { table in
            // Not starting any more: its thread has already finished.
            if table.starting.remove(key) != nil { table.running[key] = thread }
        }
    }

    func finished(_ key: Int) {
        table.withLock { table in
            table.starting.remove(key)
            table.running[key] = nil
        }
    }

    /// Joins every thread attached so far (call once no more are being started).
    func joinAll() {
        let threads = table.withLock { table in
            defer { table.running = [:] }
            return Array(table.running.values)
        }
        for thread in threads { thread.join() }
    }
}

public struct ServerRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    /// By lower-cased name.
    public var headers: [String: String]
    public var body: [UInt8]
}

public struct ServerResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    public var contentType: String

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], contentType: String = "application/json") {
        self.status = status
        self.headers = headers
        self.body = body
        self.contentType = contentType
    }

    static func error(_ status: Int, _ message: String, headers: [(String, String)] = []) -> ServerResponse {
        ServerResponse(status: status, headers: headers, body: Array("{\"error\":\(jsonString(message))}".utf8))
    }

    func serialized() -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        if !body.isEmpty || status != 204 {
            head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n"
        }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// A JSON string literal for `text` (quotes, backslashes and control characters escaped).
func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

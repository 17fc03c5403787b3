import DeviceAPI

/// One HTTP/1.1 request as the uplink sends it.
public struct HTTPRequest: Sendable {
    /// Sent with every request that does not name its own (`lifesignald/<version>`).
    public static let userAgent = DeviceSoftware.userAgent

    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case delete = "DELETE"
    }

    public var method: Method
    public var url: String
    /// Complete header lines, `Name: value`.
    public var headers: [String]
    public var body: [UInt8]
    /// The whole exchange, connecting included, must finish within this.
    public var timeout: Duration

    public init(method: Method, url: String, headers: [String] = [], body: [UInt8] = [], timeout: Duration) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header fields by lower-cased name (the last one wins).
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// No HTTP response: libcurl's error code and its message (what was tried and why it failed).
public struct TransportFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// libcurl's `CURLcode`.
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

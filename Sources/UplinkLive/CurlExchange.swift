import CCurl

/// One request/response exchange on a libcurl easy handle (used only on the transport's thread).
enum CurlExchange {
    /// What the callbacks collect during `curl_easy_perform`.
    private final class Collected {
        var body: [UInt8] = []
        var headers: [String: String] = [:]
        var overflowed = false
    }

    private struct SetupFailure: Error {
        var failure: TransportFailure
    }

    /// Runs `request` on `handle` through `multi` (both owned by the transport's thread).
    /// `shouldStop` is asked whenever `curl_multi_wakeup` interrupts the wait: a shutdown abandons
    /// the transfer at once instead of waiting out a long poll.
    static func perform(_ request: HTTPRequest, curl: LibCurl, on handle: UnsafeMutableRawPointer,
                        multi: UnsafeMutableRawPointer, shouldStop: () -> Bool) -> Result<HTTPResponse, TransportFailure> {
        // Reset keeps the connection cache: a drain of many batches reuses one connection.
        curl.easyReset(handle)
        let collected = Collected()
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        defer { errorBuffer.deallocate() }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl.slistFreeAll(headerList) }
        // "Expect:" turns off curl's `Expect: 100-continue` round trip for larger bodies; every
        // request says what sent it (a server's log tells the device's requests apart).
        let userAgent = request.headers.contains { $0.lowercased().hasPrefix("user-agent:") } ? [] : ["User-Agent: \(HTTPRequest.userAgent)"]
        for line in request.headers + ["Expect:"] + userAgent {
            guard let appended = curl.slistAppend(headerList, line) else {
                return .failure(TransportFailure(code: -1, message: "out of memory building the request headers"))
            }
            headerList = appended
        }

        return withExtendedLifetime(collected) {
            let context = Unmanaged.passUnretained(collected).toOpaque()
            do throws(SetupFailure) {
                try configure(handle, request, curl: curl, headers: headerList, errorBuffer: errorBuffer, context: context)
            } catch {
                return .failure(error.failure)
            }
            let result: CURLcode
            switch transfer(handle, curl: curl, multi: multi, shouldStop: shouldStop) {
            case let .success(code): result = code
            case let .failure(failure): return .failure(failure)
            }
            guard result == CURLE_OK else {
                let detail = String(cString: errorBuffer)
                var message = detail.isEmpty ? curl.message(result) : detail
                if collected.overflowed { message = "the reply was larger than \(CurlWorker.maxResponseBytes) bytes" }
                return .failure(TransportFailure(code: Int(result.rawValue), message: message))
            }
            var status = 0
            _ = lifesignal_curl_response_code(curl.easyGetinfo, handle, &status)
            return .success(HTTPResponse(status: status, headers: collected.headers, body: collected.body))
        }
    }

    /// The transfer through the multi interface rather than `curl_easy_perform`: the easy call waits
    /// in slices of at most one second, which would wake the device every second for as long as a
    /// ping long poll is held. Here the thread sleeps in `curl_multi_poll` until a socket is ready,
    /// libcurl's own next timeout (the request's timeout) comes, or `curl_multi_wakeup` is called.
    private static func transfer(_ handle: UnsafeMutableRawPointer, curl: LibCurl, multi: UnsafeMutableRawPointer,
                                 shouldStop: () -> Bool) -> Result<CURLcode, TransportFailure> {
        func failure(_ code: CURLMcode, _ call: String) -> TransportFailure {
            TransportFailure(code: -1, message: "libcurl \(call) failed: \(curl.message(code))")
        }
        let added = curl.multiAddHandle(multi, handle)
        guard added == CURLM_OK else { return .failure(failure(added, "curl_multi_add_handle")) }
        defer { _ = curl.multiRemoveHandle(multi, handle) }
        var running: Int32 = 1
        while true {
            let performed = curl.multiPerform(multi, &running)
            guard performed == CURLM_OK else { return .failure(failure(performed, "curl_multi_perform")) }
            guard running > 0 else { break }
            if shouldStop() {
                return .failure(TransportFailure(code: -1, message: "the uplink is shutting down; the request was abandoned"))
            }
            var next = -1
            _ = curl.multiTimeout(multi, &next)
            // -1: libcurl has no timer of its own; sockets still wake the poll. The cap only bounds
            // a wait that nothing else would end.
            let wait = Int32(next < 0 ? 60_000 : min(next, 60_000))
            let polled = curl.multiPoll(multi, nil, 0, wait, nil)
            guard polled == CURLM_OK else { return .failure(failure(polled, "curl_multi_poll")) }
        }
        var left: Int32 = 0
        while let message = curl.multiInfoRead(multi, &left) {
            if message.pointee.msg == CURLMSG_DONE { return .success(lifesignal_curl_message_result(message)) }
        }
        return .failure(TransportFailure(code: -1, message: "libcurl finished the transfer without a result"))
    }

    private static func configure(
        _ handle: UnsafeMutableRawPointer, _ request: HTTPRequest, curl: LibCurl, headers: UnsafeMutablePointer<curl_slist>?,
        errorBuffer: UnsafeMutablePointer<CChar>, context: UnsafeMutableRawPointer
    ) throws(SetupFailure) {
        func check(_ code: CURLcode, _ option: String) throws(SetupFailure) {
            guard code != CURLE_OK else { return }
            throw SetupFailure(failure: TransportFailure(
                code: Int(code.rawValue),
                message: "libcurl refused \(option): \(curl.message(code))"))
        }
        let milliseconds = max(request.timeout.components.seconds * 1000
            + request.timeout.components.attoseconds / 1_000_000_000_000_000, 1)
        try check(lifesignal_curl_set_pointer(curl.easySetopt, handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try check(lifesignal_curl_set_string(curl.easySetopt, handle, CURLOPT_URL, request.url), "CURLOPT_URL")
        // Only HTTP(S), no redirects (a redirect would carry the token elsewhere).
        try check(lifesignal_curl_set_string(curl.easySetopt, handle, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        // No signals: libcurl's SIGALRM-based DNS timeout is unsafe with threads.
        try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1)), "CURLOPT_HTTP_VERSION")
        try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_TIMEOUT_MS, Int(milliseconds)), "CURLOPT_TIMEOUT_MS")
        try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_CONNECTTIMEOUT_MS, Int(milliseconds)), "CURLOPT_CONNECTTIMEOUT_MS")
        // TLS verified against the system CA store (the defaults, set explicitly so they cannot drift).
        try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_SSL_VERIFYPEER, 1), "CURLOPT_SSL_VERIFYPEER")
        try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_SSL_VERIFYHOST, 2), "CURLOPT_SSL_VERIFYHOST")
        try check(lifesignal_curl_set_headers(curl.easySetopt, handle, headers), "CURLOPT_HTTPHEADER")
        try check(lifesignal_curl_set_callback(curl.easySetopt, handle, CURLOPT_WRITEFUNCTION, collectBody), "CURLOPT_WRITEFUNCTION")
        try check(lifesignal_curl_set_pointer(curl.easySetopt, handle, CURLOPT_WRITEDATA, context), "CURLOPT_WRITEDATA")
        try check(lifesignal_curl_set_callback(curl.easySetopt, handle, CURLOPT_HEADERFUNCTION, collectHeader), "CURLOPT_HEADERFUNCTION")
        try check(lifesignal_curl_set_pointer(curl.easySetopt, handle, CURLOPT_HEADERDATA, context), "CURLOPT_HEADERDATA")
        switch request.method {
        case .get:
            try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_HTTPGET, 1), "CURLOPT_HTTPGET")
        case .delete:
            // Without a body: a GET whose method is renamed (the handle is reset before each request).
            try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_HTTPGET, 1), "CURLOPT_HTTPGET")
            try check(lifesignal_curl_set_string(curl.easySetopt, handle, CURLOPT_CUSTOMREQUEST, "DELETE"), "CURLOPT_CUSTOMREQUEST")
        case .post, .put:
            try check(lifesignal_curl_set_long(curl.easySetopt, handle, CURLOPT_POST, 1), "CURLOPT_POST")
            try check(lifesignal_curl_set_body_size(curl.easySetopt, handle, Int64(request.body.count)), "CURLOPT_POSTFIELDSIZE_LARGE")
            // COPYPOSTFIELDS copies the bytes, so the buffer need not outlive this call.
            let code = request.body.withUnsafeBytes { bytes in
                bytes.isEmpty ? lifesignal_curl_set_string(curl.easySetopt, handle, CURLOPT_COPYPOSTFIELDS, "")
                    : lifesignal_curl_set_pointer(curl.easySetopt, handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
            try check(code, "CURLOPT_COPYPOSTFIELDS")
            if request.method == .put {
                try check(lifesignal_curl_set_string(curl.easySetopt, handle, CURLOPT_CUSTOMREQUEST, "PUT"), "CURLOPT_CUSTOMREQUEST")
            }
        }
    }

    /// CURLOPT_WRITEFUNCTION: appends body bytes; returning less than given aborts the transfer.
    private static let collectBody: lifesignal_curl_data_callback = { data, size, count, context in
        let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        guard collected.body.count + length <= CurlWorker.maxResponseBytes else {
            collected.overflowed = true
            return 0
        }
        if let data { collected.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
        return length
    }

    /// CURLOPT_HEADERFUNCTION: one complete header line per call, status lines included.
    private static let collectHeader: lifesignal_curl_data_callback = { data, size, count, context in
        let collected = Unmanaged<Collected>.fromOpaque(context!).takeUnretainedValue()
        let length = size * count
        guard let data else { return length }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            collected.headers = [:]  // a new response (after 100 Continue): forget the last one's fields
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t\r\n")
            collected.headers[name] = value
        }
        return length
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        let trimmed = unicodeScalars.drop { scalars.contains($0) }.reversed().drop { scalars.contains($0) }.reversed()
        return String(String.UnicodeScalarView(trimmed))
    }
}

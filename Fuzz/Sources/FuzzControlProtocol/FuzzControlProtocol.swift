// libFuzzer target: a control-socket line, decoded as the daemon decodes requests and as
// lifesignalctl decodes responses. Decoding must never trap, and whatever decodes must survive an
// encode/decode round trip unchanged (a crash here is a finding; `precondition` reports it).
import ControlProtocol

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlProtocol(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    checkRoundTrip(ControlRequest.self, line)
    checkRoundTrip(ControlResponse.self, line)
    return 0
}

private func checkRoundTrip<T: Codable & Equatable>(_ type: T.Type, _ line: String) {
    switch ControlCoding.decode(type, from: line) {
    case let .success(value):
        let encoded = ControlCoding.encode(value)
        precondition(!encoded.contains("\n"), "an encoded \(type) must be one line")
        guard case let .success(again) = ControlCoding.decode(type, from: encoded) else {
            preconditionFailure("\(type) decoded from \(line) does not decode again from \(encoded)")
        }
        precondition(again == value, "\(type) changed in a round trip: \(value) → \(again)")
    case let .failure(problem):
        precondition(!problem.message.isEmpty, "a refusal must say why")
    }
}

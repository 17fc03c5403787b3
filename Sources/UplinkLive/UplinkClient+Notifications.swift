import CheckInModels
import DeviceAPI
import UplinkClient

extension UplinkClient {
    /// A `NotificationList` reply as a page: tombstones become cleared ids. One unreadable item
    /// fails the whole page (permanent: retrying the same cursor would get the same item), so the
    /// cursor never moves past a notification the device could not keep.
    static func notificationPage(_ response: HTTPResponse, request: String) -> Result<NotificationPage, UplinkFailure> {
        decodeSuccess(NotificationList.self, response, request: request).flatMap { list in
            var page = NotificationPage(cursor: list.cursor, hasMore: list.hasMore)
            for item in list.notifications {
                if item.cleared == true {
                    page.clearedIDs.append(item.id)
                    continue
                }
                switch item.notification() {
                case let .success(notification):
                    page.notifications.append(notification)
                case let .failure(problem):
                    return .failure(UplinkFailure(.permanent, "\(request) answered with a notification the device "
                        + "cannot keep: \(problem.message)", httpStatus: response.status))
                }
            }
            return .success(page)
        }
    }

    /// `text` as a query value: RFC 3986 unreserved characters stay, every other byte is %XX.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF")
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.append(Character(Unicode.Scalar(byte)))
            default:
                encoded += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
            }
        }
        return encoded
    }
}

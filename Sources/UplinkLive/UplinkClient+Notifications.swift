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
}

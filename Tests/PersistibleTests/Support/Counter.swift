import Foundation
import Persistible

/// A count that many tasks add to; `Atomic` would need macOS 15, and the package supports macOS 13.
final class Counter: @unchecked Sendable {
    // Every access holds `lock`.
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }

    func reset() { lock.withLock { count = 0 } }

    var value: Int { lock.withLock { count } }
}

/// A record that counts its decodes in the counter of the task that decodes it, so that tests running at once each
/// count their own.
struct DecodeCounted: Codable, Hashable, Identifiable, Persistible {
    @TaskLocal static var decodes: Counter?
    var id: Int
    var name: String

    init(id: Int, name: String) {
        (self.id, self.name) = (id, name)
    }

    init(from decoder: any Decoder) throws {
        Self.decodes?.increment()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
    }
}

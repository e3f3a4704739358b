import Foundation
import Persistible

/// The demo's own settings: one value, kept in the configuration directory, changed with `update(default:_:)`.
struct DemoSettings: Codable, Hashable, Persistible {
    /// The order `list` prints in when it is not given `--sort`: `saved`, `name` or `age`.
    var sort = "saved"

    static let sortOrders = ["saved", "name", "age"]

    static var fileName: String { "settings" }

    /// `--directory`'s directory, else the platform's configuration directory, under a name that stays the same
    /// if the executable is renamed.
    static var archiveDirectory: URL {
        DemoLocation.directory ?? ArchiveDirectory.configuration(application: "PersonDemo")
    }
}

/// The directory `--directory` names, for both files.
enum DemoLocation {
    @TaskLocal static var directory: URL?
}

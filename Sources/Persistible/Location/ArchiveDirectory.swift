#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The platform's directories for each kind of file a program keeps, for a type to return from
/// ``Persistible/archiveDirectory``; <doc:SettingsAndEditing#Where-the-file-goes> lists them.
///
/// ```swift
/// static var archiveDirectory: URL { ArchiveDirectory.configuration(application: "com.example.notes") }
/// ```
public enum ArchiveDirectory {
    /// The name of the program's folder when none is given: its bundle identifier, else its executable's name.
    public static var defaultApplication: String {
        PlatformDirectory.defaultApplication
    }

    /// The directory for the program's own data: where files go when a type does not say.
    ///
    /// - Parameter application: The name of the program's folder, by default ``defaultApplication``.
    public static func data(application: String = defaultApplication) -> URL {
        PlatformDirectory.url(for: .data, application: application)
    }

    /// The directory for the program's settings.
    ///
    /// - Parameter application: The name of the program's folder, by default ``defaultApplication``.
    public static func configuration(application: String = defaultApplication) -> URL {
        PlatformDirectory.url(for: .configuration, application: application)
    }

    /// The directory for files that the program can make again, which the system or the user may delete.
    ///
    /// - Parameter application: The name of the program's folder, by default ``defaultApplication``.
    public static func caches(application: String = defaultApplication) -> URL {
        PlatformDirectory.url(for: .caches, application: application)
    }
}

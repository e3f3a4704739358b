import Foundation

/// Each type's archive URL and path, kept for the directory and file name they were made from.
///
/// Making a file URL from a directory and a name, and a path from a URL, costs a save more than the rest of its work
/// in memory; and a type's directory and name seldom change. So the last ones each type used are kept, and made
/// again only when the directory, the name or the URL differs.
enum ArchiveAddress {
    private struct Made {
        var directory: URL
        var name: String
        var url: URL
    }

    private static let urls = Locked<[ObjectIdentifier: Made]>([:])
    private static let paths = Locked<[ObjectIdentifier: (url: URL, path: String)]>([:])

    /// The file named `name` with a `.json` extension in `directory`, for `type`'s archive.
    static func url(for type: Any.Type, in directory: URL, named name: String) -> URL {
        let key = ObjectIdentifier(type)
        if let made = urls.withLock({ $0[key] }), made.name == name, made.directory == directory {
            return made.url
        }
        let url = directory.appendingPathComponent(name, isDirectory: false).appendingPathExtension("json")
        urls.withLock { $0[key] = Made(directory: directory, name: name, url: url) }
        return url
    }

    /// `url.path`, for `type`'s archive at `url`.
    static func path(of url: URL, for type: Any.Type) -> String {
        let key = ObjectIdentifier(type)
        if let made = paths.withLock({ $0[key] }), made.url == url {
            return made.path
        }
        let path = url.path
        paths.withLock { $0[key] = (url, path) }
        return path
    }
}

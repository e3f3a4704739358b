import Foundation

extension Persistible where Self: Codable & Hashable {
    /// The archive described by the type's requirements, after validating its file name.
    static func archive() throws(PersistenceError) -> Archive<Self> {
        Archive(
            url: try validatedArchiveUrl(),
            typeName: String(describing: self),
            encoder: archiveEncoder,
            decoder: archiveDecoder,
            durability: archiveDurability
        )
    }
}

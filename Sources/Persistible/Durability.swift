/// How far a save goes to make its data survive a crash of the whole machine.
///
/// Every save is atomic whatever the durability: the file holds either the old contents or the new ones, never a
/// mixture, even if the process is killed in the middle. Durability decides what a power loss or a kernel crash
/// can undo.
public enum Durability: Sendable, Hashable {
    /// The file and its directory are flushed to the disk before a save returns.
    ///
    /// Once `saveToFile()` returns, the value survives a power loss. On Linux this is `fsync` of the new file and
    /// of its directory; on Apple platforms `F_FULLFSYNC`, which also empties the drive's own cache.
    case full

    /// Nothing is flushed: the operating system writes the data back when it chooses.
    ///
    /// A save is several times faster, and still atomic with respect to other processes and to a crash of the
    /// process itself. A power loss or kernel crash shortly after a save may bring back the previous contents.
    case noSync
}

/// `cache/identifier-block`: the allocation block (see ``IdentifierBlocks``) this copy of a store draws
/// new identifiers from, when it allocates per clone.
///
/// One framed line, `{"$crc":"…","block":N,"device":D,"inode":I}`, where `device` and `inode` are those
/// of the store directory the block was drawn for. The file lives in the cache folder, which git never
/// commits, so a new clone draws a block of its own; a directory copied with its cache (`cp -r`) has
/// another identity and draws one too. A missing, damaged or foreign file is never trusted: the writer
/// draws a fresh block, which is always safe (a block nobody has used).
enum IdentifierBlockFile {
    static let name = "identifier-block"

    /// The block recorded at `path` for the directory with `identity`, or nil if there is none to use.
    static func read(at path: String, directory identity: FileStatus, fileSystem fs: any FileSystem) -> Int64? {
        guard let bytes = try? fs.readSmallFile(path, limit: 4096) else { return nil }
        var line = bytes[...]
        if line.last == 0x0A { line = line.dropLast() }
        guard let members = try? [UInt8](line).withUnsafeBufferPointer({ try LineFraming.decode($0) }),
            case .int(let block)? = members["block"], IdentifierBlocks.isValid(block), block != 0,
            case .int(let device)? = members["device"], case .int(let inode)? = members["inode"],
            UInt64(bitPattern: device) == identity.device, UInt64(bitPattern: inode) == identity.inode
        else { return nil }
        return block
    }

    /// Records `block` for the directory with `identity`, replacing the file by rename.
    static func write(_ block: Int64, at path: String, directory identity: FileStatus, fileSystem fs: any FileSystem) throws {
        let line = try LineFraming.encode([
            "block": .int(block), "device": .int(Int64(bitPattern: identity.device)), "inode": .int(Int64(bitPattern: identity.inode)),
        ])
        try SnapshotCacheBuilder.write(line, to: path, fileSystem: fs)
    }
}

extension Store {
    /// The block this store's next write allocates identifiers in, or nil to count on from the highest
    /// identifier in use. Caller holds the writer lock and the exclusive file lock, so that two processes
    /// sharing this directory agree on one block.
    func allocationBlock(_ journal: inout JournalWriter, counters: IdentifierCounters) -> Int64? {
        if let fixed = configuration.fixedIdentifierBlock { return fixed }
        guard let paths else { return nil }
        if journal.allocatesPerClone == nil {
            switch configuration.identifierAllocation {
            case .sequential: journal.allocatesPerClone = false
            case .perClone: journal.allocatesPerClone = true
            case .automatic: journal.allocatesPerClone = gitWorkTree(&journal) != nil
            }
        }
        guard journal.allocatesPerClone == true else { return nil }
        if let block = journal.identifierBlock, !IdentifierBlocks.isExhausted(counters.next(in: block), in: block) { return block }
        let path = "\(paths.cacheDirectory)/\(IdentifierBlockFile.name)"
        guard let identity = try? fs.status(atPath: paths.directory) else { return nil }
        if let block = IdentifierBlockFile.read(at: path, directory: identity, fileSystem: fs),
            !IdentifierBlocks.isExhausted(counters.next(in: block), in: block)
        {
            journal.identifierBlock = block
            return block
        }
        var block: Int64
        repeat { block = Int64.random(in: 1..<IdentifierBlocks.blockCount) } while counters.byBlock[block] != nil
        // A block that cannot be recorded (a read-only cache folder) still serves this process: the next
        // one draws another, which is as safe.
        try? IdentifierBlockFile.write(block, at: path, directory: identity, fileSystem: fs)
        journal.identifierBlock = block
        return block
    }
}

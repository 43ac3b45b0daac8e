// The seed's .NET benchmark (/work/shared/seeds/dotnet-mmap-single-byte.txt),
// kept as written: count the zero bytes of a memory-mapped file through
// MemoryMappedViewAccessor, ReadByte for readCount == 1 and ReadArray into an
// ArrayPool buffer for readCount > 1, in Parallel.For(0, threads, ...) with
// Interlocked.Increment.  One addition, a 4th argument:
//
//   accessor (default)  the seed's path: every ReadByte/ReadArray call goes
//                       through SafeBuffer, which takes and drops a reference
//                       on the shared view handle (DangerousAddRef/Release,
//                       two atomic read-modify-writes on one cache line).
//   pointer             the fix the seed asks to verify: the view's pointer
//                       is taken ONCE (SafeMemoryMappedViewHandle.AcquirePointer
//                       + PointerOffset) and the bytes are read through it,
//                       then ReleasePointer() in a finally.  Same chunks, same
//                       reads (readCount bytes copied into the rented buffer,
//                       clamped at the end of the view as ReadArray is), same
//                       output.
//
// JIT warm-up: tiered compilation is left at its defaults, as in the seed.
// Every run is a fresh process, so every run (the first repetition of an
// mmprof exec probe and every later one alike) times a cold JIT: the
// Parallel.For lambda starts as unoptimised tier-0 code and its loop is moved
// to optimised code by on-stack replacement after some thousands of
// iterations; the framework's ReadByte/ReadArray/SafeBuffer methods start as
// precompiled ReadyToRun code and are recompiled at tier 1, with dynamic PGO,
// only after 30 calls plus a ~100 ms call-counting delay, on a background
// thread.  So roughly the first 100-200 ms of each timed region run slower
// code than the rest: a few percent of a 100 MiB ReadByte run (seconds), but
// most of a fast run (ReadArray, pointer: tens of ms).  Environment knobs,
// no rebuild: DOTNET_TC_CallCountingDelayMs=0 reaches tier 1 sooner (the
// warm-up's share).  DOTNET_TieredCompilation=0 is not "warm-up free": it
// also turns dynamic PGO off, and ReadByte ran ~1.5x SLOWER with it here
// (repro/README.md).

using System.Buffers;
using System.Diagnostics;
using System.IO.MemoryMappedFiles;

if (args.Length == 0)
{
    Console.WriteLine("Usage: MMapTest.exe <file> [readCount=1] [threads=8] [mode=accessor|pointer]");
    return;
}

var file = args[0];
var fileInfo = new FileInfo(file);
if (!fileInfo.Exists)
{
    Console.WriteLine($"File not found: {file}");
    return;
}

int readCount = args.Length > 1 ? int.Parse(args[1]) : 1;
int threads = args.Length > 2 ? int.Parse(args[2]) : 8;
string mode = args.Length > 3 ? args[3] : "accessor";
if (mode != "accessor" && mode != "pointer")
{
    Console.Error.WriteLine($"Unknown mode: {mode} (accessor or pointer)");
    Environment.Exit(2);
}

using var fs = fileInfo.OpenRead();
using var mmf = MemoryMappedFile.CreateFromFile(fs, null, fs.Length, MemoryMappedFileAccess.Read, HandleInheritability.Inheritable, false);

using var accessor = mmf.CreateViewAccessor(0, fs.Length, MemoryMappedFileAccess.Read);

Console.WriteLine($"Reading {fileInfo.Length} bytes...");
Console.WriteLine($"{readCount} byte(s) at a time using {threads} thread(s)");

var stopWatch = Stopwatch.StartNew();
int zeroes = 0;
long chunkSize = fs.Length / threads;

if (mode == "accessor")
{
    Parallel.For(0, threads, chunk =>
    {
        long start = chunk * chunkSize;
        long end = (chunk == threads - 1) ? fs.Length : start + chunkSize;

        for (long i = start; i < end; i += readCount)
        {
            if (readCount == 1)
            {
                byte b = accessor.ReadByte(i);
                if (b == 0)
                {
                    Interlocked.Increment(ref zeroes);
                }
            }
            else
            {
                byte[] buffer = ArrayPool<byte>.Shared.Rent(readCount);
                int read = accessor.ReadArray(i, buffer, 0, readCount);
                for (int j = 0; j < read; j++)
                {
                    if (buffer[j] == 0)
                    {
                        Interlocked.Increment(ref zeroes);
                    }
                }
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }
    });
}
else
{
    unsafe
    {
        var view = accessor.SafeMemoryMappedViewHandle;
        byte* ptr = null;
        view.AcquirePointer(ref ptr);
        try
        {
            // The view starts at a page boundary; the accessor's byte 0 is
            // PointerOffset bytes into it (0 here: offset 0 of the file).
            byte* data = ptr + accessor.PointerOffset;
            long capacity = accessor.Capacity;
            Parallel.For(0, threads, chunk =>
            {
                long start = chunk * chunkSize;
                long end = (chunk == threads - 1) ? fs.Length : start + chunkSize;

                for (long i = start; i < end; i += readCount)
                {
                    if (readCount == 1)
                    {
                        byte b = data[i];
                        if (b == 0)
                        {
                            Interlocked.Increment(ref zeroes);
                        }
                    }
                    else
                    {
                        byte[] buffer = ArrayPool<byte>.Shared.Rent(readCount);
                        int read = (int)Math.Min(readCount, capacity - i);
                        new ReadOnlySpan<byte>(data + i, read).CopyTo(buffer);
                        for (int j = 0; j < read; j++)
                        {
                            if (buffer[j] == 0)
                            {
                                Interlocked.Increment(ref zeroes);
                            }
                        }
                        ArrayPool<byte>.Shared.Return(buffer);
                    }
                }
            });
        }
        finally
        {
            view.ReleasePointer();
        }
    }
}

Console.WriteLine($"Found {zeroes} zero bytes in {file}");
stopWatch.Stop();
Console.WriteLine($"Elapsed time: {stopWatch.Elapsed}");

// The seed's Java benchmark (/work/shared/seeds/dotnet-mmap-single-byte.txt),
// kept as written except for two things:
//
// * No commons-lang3: its StopWatch is replaced by System.nanoTime, and the
//   elapsed time is printed as StopWatch.toString() prints it
//   (DurationFormatUtils.formatDurationHMS of whole milliseconds):
//   "HH:mm:ss.SSS", hours not wrapped at 24.
// * A 4th argument selects the multi-byte read (readCount > 1):
//     relative (default)  the seed's accessor.position(i); accessor.get(buffer,
//                         0, count) on the ONE MappedByteBuffer shared by all
//                         the threads of the parallel stream.  The position is
//                         shared mutable state: with 2+ threads one thread's
//                         position(i) lands between another's position(i) and
//                         get(), so blocks are read twice or skipped and the
//                         count is wrong (or get() throws).  Kept on purpose:
//                         it is what the seed measured.
//     absolute            the fix: the absolute bulk get (Java 13+)
//                         accessor.get(i, buffer, 0, count), no shared
//                         position, the right count.
//   readCount == 1 uses the absolute accessor.get(i) in both modes, as the
//   seed does.
package org.example;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

public class App {
    public static void main(String[] args) {
        if (args.length == 0) {
            System.out.println("Usage: MMapTest <file> [readCount=1] [threads=8] [mode=relative|absolute]");
            return;
        }

        File file = new File(args[0]);
        if (!file.exists()) {
            System.out.println("File not found: " + file);
            return;
        }

        int readCount = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        String mode = args.length > 3 ? args[3] : "relative";
        if (!mode.equals("relative") && !mode.equals("absolute")) {
            System.err.println("Unknown mode: " + mode + " (relative or absolute)");
            System.exit(2);
        }
        boolean absolute = mode.equals("absolute");

        try (FileInputStream fis = new FileInputStream(file);
             FileChannel fileChannel = fis.getChannel()) {

            MappedByteBuffer accessor = fileChannel.map(FileChannel.MapMode.READ_ONLY, 0, file.length());
            System.out.println("Reading " + file.length() + " bytes...");
            System.out.println(readCount + " byte(s) at a time using " + threads + " thread(s)");

            long startNanos = System.nanoTime();
            AtomicInteger zeroes = new AtomicInteger(0);
            int chunkSize = (int)file.length() / threads;

            IntStream.range(0, threads).parallel().forEach(chunk -> {
                int start = chunk * chunkSize;
                int end = (chunk == threads - 1) ? (int)file.length() : start + chunkSize;

                for (int i = start; i < end; i += readCount) {
                    if (readCount == 1) {
                        if (accessor.get(i) == 0) {
                            zeroes.incrementAndGet();
                        }
                    } else {
                        byte[] buffer = new byte[readCount];
                        int remainingBytes = (int) file.length() - i;
                        int count = Math.min(readCount, remainingBytes);
                        if (absolute) {
                            accessor.get(i, buffer, 0, count);
                        } else {
                            accessor.position(i);
                            accessor.get(buffer, 0, count);
                        }
                        for (int j = 0; j < count; j++) {
                            if (buffer[j] == 0) {
                                zeroes.incrementAndGet();
                            }
                        }
                    }
                }
            });

            long elapsedNanos = System.nanoTime() - startNanos;
            System.out.println("Found " + zeroes.get() + " zero bytes in " + file);
            System.out.println("Elapsed time: " + formatDurationHMS(elapsedNanos / 1_000_000));
        } catch (FileNotFoundException e) {
            System.err.println("Error: File not found");
        } catch (IOException e) {
            System.err.println("Error reading file: " + e.getMessage());
        }
    }

    // commons-lang3 DurationFormatUtils.formatDurationHMS: "HH:mm:ss.SSS",
    // each field zero-padded, hours unbounded.
    static String formatDurationHMS(long millis) {
        return String.format("%02d:%02d:%02d.%03d",
                millis / 3_600_000, millis / 60_000 % 60, millis / 1000 % 60, millis % 1000);
    }
}

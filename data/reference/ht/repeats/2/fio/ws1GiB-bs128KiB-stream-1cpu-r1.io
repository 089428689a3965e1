rchar: 32820538366
wchar: 13658
syscr: 250618
syscw: 5
read_bytes: 81920
write_bytes: 32768
cancelled_write_bytes: 0

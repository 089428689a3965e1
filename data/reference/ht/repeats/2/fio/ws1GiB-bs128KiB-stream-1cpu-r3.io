rchar: 42521701330
wchar: 13658
syscr: 324633
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0

rchar: 43562937353
wchar: 13670
syscr: 332579
syscw: 5
read_bytes: 458752
write_bytes: 24576
cancelled_write_bytes: 0

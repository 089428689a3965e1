rchar: 121770847160
wchar: 13667
syscr: 929257
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0

rchar: 42423135223
wchar: 13658
syscr: 323883
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0

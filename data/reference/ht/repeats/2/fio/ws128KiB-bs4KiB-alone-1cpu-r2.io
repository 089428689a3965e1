rchar: 20351113677
wchar: 5979
syscr: 4968707
syscw: 3
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0

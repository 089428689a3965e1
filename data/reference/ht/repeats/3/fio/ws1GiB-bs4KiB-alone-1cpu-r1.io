rchar: 17222671345
wchar: 13661
syscr: 4204947
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0

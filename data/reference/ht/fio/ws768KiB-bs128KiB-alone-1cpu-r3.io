rchar: 83728772050
wchar: 13664
syscr: 639016
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0

rchar: 21218724815
wchar: 13664
syscr: 5180546
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0

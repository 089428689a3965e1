rchar: 81040485310
wchar: 13664
syscr: 618506
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0

rchar: 11051052020
wchar: 13654
syscr: 10757
syscw: 5
read_bytes: 524288
write_bytes: 12288
cancelled_write_bytes: 0

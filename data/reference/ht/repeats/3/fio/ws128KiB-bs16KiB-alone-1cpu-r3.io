rchar: 58647710158
wchar: 5983
syscr: 3579758
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0

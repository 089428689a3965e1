rchar: 17015667652
wchar: 13663
syscr: 4154408
syscw: 5
read_bytes: 253952
write_bytes: 12288
cancelled_write_bytes: 0

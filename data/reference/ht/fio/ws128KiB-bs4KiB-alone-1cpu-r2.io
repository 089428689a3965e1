rchar: 17070218187
wchar: 13661
syscr: 4167727
syscw: 5
read_bytes: 45056
write_bytes: 16384
cancelled_write_bytes: 0

rchar: 176852937777
wchar: 18991
syscr: 1349502
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0

rchar: 156761435178
wchar: 18982
syscr: 1196216
syscw: 5
read_bytes: 12288
write_bytes: 16384
cancelled_write_bytes: 0

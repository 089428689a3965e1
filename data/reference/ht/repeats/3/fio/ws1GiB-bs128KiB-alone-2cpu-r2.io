rchar: 91595320317
wchar: 18969
syscr: 699037
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
